//go:build !unix

package embedded

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDataDir opens the data folder's lock file; without flock, nothing
// keeps a second process off the folder.
func lockDataDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("embedded: data folder: %w", err)
	}
	return f, nil
}
