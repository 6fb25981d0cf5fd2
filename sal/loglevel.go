package sal

import (
	"fmt"
	"io"
	"log/slog"
)

// ReplaceLevel is a slog.HandlerOptions.ReplaceAttr that names the level
// of Python's CRITICAL (LevelCritical) "CRITICAL"; slog would write
// "ERROR+4". Other attributes are returned unchanged.
//
//	h := slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{ReplaceAttr: sal.ReplaceLevel})
func ReplaceLevel(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.LevelKey {
		if l, ok := a.Value.Any().(slog.Level); ok && l == LevelCritical {
			a.Value = slog.StringValue("CRITICAL")
		}
	}
	return a
}

// processLogger is the process log of RunCSC and RunScript when neither
// the program (slog.SetDefault) nor its options chose one: slog's text
// handler on stderr, at INFO, with CRITICAL named (slog's built-in default
// writes it as "ERROR+4"). Nil when a logger was chosen.
func processLogger(stderr io.Writer) *slog.Logger {
	if fmt.Sprintf("%T", slog.Default().Handler()) != "*slog.defaultHandler" {
		return nil // the program set its own default
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{ReplaceAttr: ReplaceLevel}))
}
