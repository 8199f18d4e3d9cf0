// Package install holds the test of the README's Install section: each
// adapter's README tells the same story, and both of its blocks of
// commands, run as printed by a shell in an empty directory against this
// checkout, build and run a program importing the root module and an
// adapter. It needs no network: the module cache CI fills is enough.
package install
