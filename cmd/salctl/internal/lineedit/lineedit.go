package lineedit

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/chzyer/readline"
)

// ErrInterrupt is returned by ReadLine when Ctrl-C was typed at the
// prompt, with the line typed so far (which the editor clears; a caller
// that wants it kept gives it to SetDefault).
var ErrInterrupt = errors.New("lineedit: interrupted")

// Completer returns the candidates for the word being typed: line is the
// text before the cursor, and each candidate is a whole word that starts
// with the part of it after the last space (a trailing space or "=" is
// kept, so that the next word can follow at once).
type Completer func(line string) []string

// Reader reads lines, one command each.
type Reader interface {
	// ReadLine returns the next line without its end; io.EOF at the end
	// of the input (Ctrl-D on an empty line), ErrInterrupt for Ctrl-C
	// (with the line typed so far).
	ReadLine() (string, error)
	// Output is where to write while a line may be being edited: a
	// terminal editor clears the prompt, writes, and draws it again.
	Output() io.Writer
	// Close restores the terminal; it is safe to call twice.
	Close() error
}

// NewTerminal reads lines from the terminal of stdin and stdout with
// editing, the session's history on the arrow keys and tab completion.
func NewTerminal(prompt string, complete Completer) (Reader, error) {
	// readline's Close does not close the stdin reader it makes itself,
	// and waits for its reading goroutine, which may be blocked reading
	// the terminal (after Ctrl-D, for one): with a reader of ours, Close
	// closes it first and unblocks that goroutine.
	stdin := readline.NewCancelableStdin(os.Stdin)
	cfg := &readline.Config{
		Prompt:          prompt,
		HistoryLimit:    1000,
		InterruptPrompt: "^C",
		EOFPrompt:       "exit",
		Stdin:           stdin,
	}
	if complete != nil {
		cfg.AutoComplete = completer(complete)
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		stdin.Close()
		return nil, err
	}
	return &terminal{rl: rl, stdin: stdin}, nil
}

type terminal struct {
	rl    *readline.Instance
	stdin io.Closer
	once  sync.Once

	mu   sync.Mutex
	next string // the text the next ReadLine starts with
}

func (t *terminal) ReadLine() (string, error) {
	t.mu.Lock()
	next := t.next
	t.next = ""
	t.mu.Unlock()
	var line string
	var err error
	if next != "" {
		line, err = t.rl.ReadlineWithDefault(next)
	} else {
		line, err = t.rl.Readline()
	}
	if errors.Is(err, readline.ErrInterrupt) {
		return line, ErrInterrupt
	}
	return line, err
}

// SetDefault makes the next ReadLine start with s typed, as the line
// Ctrl-C cleared: the terminal's Reader has it; the plain one does not.
func (t *terminal) SetDefault(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next = s
}

func (t *terminal) Output() io.Writer { return t.rl.Stdout() }

func (t *terminal) Close() error {
	var err error
	t.once.Do(func() {
		t.stdin.Close()
		err = t.rl.Close()
	})
	return err
}

// completer adapts a Completer to readline's AutoCompleter, which wants
// the candidates' endings after what is typed and the length typed.
type completer Completer

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	word := before[strings.LastIndexAny(before, " \t")+1:]
	var out [][]rune
	for _, cand := range c(before) {
		if strings.HasPrefix(cand, word) {
			out = append(out, []rune(cand[len(word):]))
		}
	}
	return out, len([]rune(word))
}

// NewPlain reads lines from r, with no editing: for scripts and pipes.
// Output is w.
func NewPlain(r io.Reader, w io.Writer) Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &plain{sc: sc, w: w}
}

type plain struct {
	sc *bufio.Scanner
	w  io.Writer
}

func (p *plain) ReadLine() (string, error) {
	if p.sc.Scan() {
		return strings.TrimSuffix(p.sc.Text(), "\r"), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (p *plain) Output() io.Writer { return p.w }

func (p *plain) Close() error { return nil }
