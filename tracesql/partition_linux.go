package tracesql

import "golang.org/x/sys/unix"

// exchangeDirs swaps the names of two directories in one step.
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
