package sqlitestore

// Tag is the mark of session id in the search index, for the tests.
var Tag = tag
