// Package lineedit reads command lines from a terminal with editing, a
// history of the session and tab completion (github.com/chzyer/readline,
// which no other package of the module imports), or plain lines from any
// other reader. salctl commander is its user.
package lineedit
