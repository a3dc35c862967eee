package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// placement says where an output named path goes: written directly (a
// descriptor the shell set up, /dev/stdout or /proc/self/fd/N, whatever it
// is; an existing file that is not a regular file: a pipe, a FIFO, a
// device), or renamed onto target (through a symlink, onto the file it
// points to, as writing through it would). It is decided by what the path
// is, not where: a new file under /dev/shm (a tmpfs) is a regular file.
func placement(path string) (target string, direct bool) {
	if descriptor(path) {
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

// fdDir matches the directories whose entries are a process's open
// descriptors.
var fdDir = regexp.MustCompile(`^(/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd|/dev/fd)$`)

// descriptor reports whether path names an open descriptor: it is, or
// leads through symlinks to, an entry of a descriptor directory
// (/dev/stdout -> /proc/self/fd/1). Such a name stands for whatever the
// descriptor is (a terminal, a pipe, a file the shell opened for
// appending): it is written directly, never replaced by a rename.
func descriptor(path string) bool {
	p := path
	for range 40 { // the kernel's limit on symlinks followed
		abs, err := filepath.Abs(p)
		if err != nil {
			return false
		}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil && fdDir.MatchString(dir) {
			return true
		}
		li, err := os.Lstat(abs)
		if err != nil || li.Mode()&os.ModeSymlink == 0 {
			return false
		}
		t, err := os.Readlink(abs)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(abs), t)
		}
		p = t
	}
	return false
}

// seekable reports whether an output written directly can be written
// with seeks (merge and recover write the header last): a descriptor
// that is a regular file can.
func seekable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
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
		var lock *os.File
		if dir {
			if err = os.Mkdir(name, 0o777); err == nil {
				lock = markTemp(name) // a kill -9 leaves it for the next export to remove (sweepTemps)
			}
		} else {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		}
		if err == nil {
			if temps.names == nil {
				temps.names = map[string]*os.File{}
			}
			temps.names[name] = lock
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
	names map[string]*os.File // a directory's lock (markTemp), else nil
}

// forgetTemp forgets a temporary renamed into place or removed, and
// releases its lock.
func forgetTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if lock := temps.names[name]; lock != nil {
		lock.Close()
	}
	delete(temps.names, name)
}

func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name, lock := range temps.names {
		os.RemoveAll(name)
		if lock != nil {
			lock.Close()
		}
		delete(temps.names, name)
	}
}
