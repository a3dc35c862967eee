package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// output is a command's -o file. A regular file is written under a
// temporary name in its directory and renamed into place by commit, so a
// command that fails or is killed never leaves a half-written file under the
// final name (and never truncates the input before reading it: -o naming
// the input is refused before anything is opened). Outputs that cannot be
// renamed into place - a pipe, /dev/null, /dev/stdout - are written
// directly, as before.
type output struct {
	name   string // as the user gave it: errors name it, not the temporary
	target string // the file the name resolves to (a symlink's target)
	tmp    string // the temporary name; "" when writing directly
	f      *os.File
}

// notInput refuses an output that is the input file: the same device and
// inode, however named (a symlink, a hard link, another spelling).
func notInput(input, out string) error {
	fi, err := os.Stat(input)
	if err != nil {
		return nil // opening the input says what is wrong with it
	}
	fo, err := os.Stat(out)
	if err != nil {
		return nil // a new file, or one the create will complain about
	}
	if os.SameFile(fi, fo) {
		return usagef("-o %s is the input file %s; nothing was written", out, input)
	}
	return nil
}

// placement says where an output named path goes: written directly (not
// a regular file, or a device path such as /dev/stdout, which stands for
// whatever the descriptor is), or renamed onto target (through a symlink,
// onto the file it points to, as writing through it would).
func placement(path string) (target string, direct bool) {
	if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		return path, true
	}
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return path, true
	}
	if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return path, true // dangling: let the open through it create the file
		}
		return t, false
	}
	return path, false
}

// createOutput opens the output for a command reading input.
func createOutput(input, path string) (*output, error) {
	if err := notInput(input, path); err != nil {
		return nil, err
	}
	o := &output{name: path}
	target, direct := placement(path)
	o.target = target
	var err error
	if direct {
		o.f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	} else {
		o.f, o.tmp, err = createTemp(target, false)
		if err == nil {
			if fi, serr := os.Stat(target); serr == nil {
				err = o.f.Chmod(fi.Mode().Perm()) // replacing a file keeps its mode, as truncating it did
			}
		}
	}
	if err != nil {
		o.abort()
		return nil, fmt.Errorf("%s: cannot create: %w", path, pathErr(err))
	}
	return o, nil
}

// Write names the output in its errors, not the temporary file.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	if err != nil {
		err = &os.PathError{Op: "write", Path: o.name, Err: pathErr(err)}
	}
	return n, err
}

// commit completes the output: fsync when asked (a regular file: a pipe or
// a device cannot be synced), close, rename into place.
func (o *output) commit(sync bool) error {
	var err error
	if sync && o.tmp != "" {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && o.tmp != "" {
		err = os.Rename(o.tmp, o.target)
	}
	if err != nil {
		o.removeTemp()
		return fmt.Errorf("%s: %w", o.name, pathErr(err))
	}
	forgetTemp(o.tmp)
	return nil
}

// abort closes the output and removes the temporary file.
func (o *output) abort() {
	if o.f != nil {
		o.f.Close()
	}
	o.removeTemp()
}

func (o *output) removeTemp() {
	if o.tmp != "" {
		os.Remove(o.tmp)
		forgetTemp(o.tmp)
	}
}

// createTemp creates a file (or a directory) next to target under a hidden
// name that cannot clash: ".NAME.tmp-RANDOM". The file is created with mode
// 0666 less the umask, a directory 0777 less the umask, as os.Create and
// os.Mkdir would create the output itself (os.CreateTemp would make it
// 0600, os.MkdirTemp 0700: a renamed Parquet export stayed 0700).
func createTemp(target string, dir bool) (*os.File, string, error) {
	d, base := filepath.Split(target)
	for range 100 {
		name := filepath.Join(d, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		var f *os.File
		var err error
		// Created and remembered under the lock removeTemps takes: an
		// interrupt in between would leave it behind.
		temps.Lock()
		if dir {
			err = os.Mkdir(name, 0o777)
		} else {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		}
		if err == nil {
			if temps.names == nil {
				temps.names = map[string]bool{}
			}
			temps.names[name] = true
		}
		temps.Unlock()
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("%s: no free temporary name", target)
}

// pathErr drops the *os.PathError around err: its path is the temporary
// name, which means nothing to the user.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// The temporary files and directories being written, removed by
// removeTemps when the process is interrupted (SIGINT, SIGTERM): a killed
// command leaves neither a partial output nor, unless SIGKILLed, its
// temporary.
var temps struct {
	sync.Mutex
	names map[string]bool
}

func forgetTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.RemoveAll(name)
		delete(temps.names, name)
	}
}
