// Package textcut cuts text to size for every part of compact that
// shortens it: in the middle around a marker (Middle, ToTokens), to a
// prefix or suffix (Head, Tail, Clip), onto one line (OneLine), and a tool
// call's JSON arguments with every key kept (Arguments). Every cut falls on
// a rune boundary, so valid UTF-8 stays valid. Runes counts characters as
// the cuts do.
package textcut
