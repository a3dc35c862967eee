package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A temporary directory (an export's, the Parquet export's tables) is
// locked by the process writing it: an exclusive flock on the directory,
// then a marker file inside, made once the lock is held. A kill -9 leaves
// the directory but not the lock, which the kernel drops with the process,
// so the next export into the same place can tell a killed export's
// directory (our name, the marker, no holder) from a live one's (the lock
// held) and from anything else (no marker: another program's, or an older
// trace_reader's, which did not lock): it removes only the first. The
// marker names the writer's host: on shared storage a lock may not be
// seen from another machine (some network file systems keep flock
// local), so only the directories of this host's exports are removed.

// tempMarker is the marker file: "HOST PID", the writer's host and
// process id.
const tempMarker = ".chronon-writing"

// thisHost names this machine in markers ("" when it has no name: then
// nothing is swept).
var thisHost, _ = os.Hostname()

// tempName matches the names createTemp gives: ".NAME.tmp-RANDOM".
var tempName = regexp.MustCompile(`^\..+\.tmp-[0-9a-z]{1,13}$`)

// markTemp locks the new temporary directory and writes its marker; the
// returned handle holds the lock until closed. Without locks (a system
// without flock) it returns nil and writes no marker: the directory is
// then never taken for a killed export's.
func markTemp(dir string) *os.File {
	f := lockDir(dir)
	if f == nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, tempMarker), []byte(thisHost+" "+strconv.Itoa(os.Getpid())+"\n"), 0o666); err != nil {
		f.Close()
		return nil
	}
	return f
}

// unmarkTemp removes the marker of a temporary directory about to be
// renamed into place (the output must not hold it). The lock stays until
// forgetTemp.
func unmarkTemp(dir string) {
	os.Remove(filepath.Join(dir, tempMarker))
}

// sweepTemps removes, in dir, the temporary directories that killed
// exports left: those named as createTemp names them (for base "" any
// base, else ".base.tmp-*"), holding the marker of this host, whose lock
// nobody holds.
// It takes the lock before removing, so two sweeps never race, and a live
// export's directory (its lock held) is never touched. It returns what it
// removed; it is best effort: what it cannot remove stays.
func sweepTemps(dir, base string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !tempName.MatchString(name) || (base != "" && !strings.HasPrefix(name, "."+base+".tmp-")) {
			continue
		}
		path := filepath.Join(dir, name)
		if !markedHere(filepath.Join(path, tempMarker)) {
			continue // not ours, another host's, or ours in the instant before the marker: live
		}
		f := tryLockDir(path)
		if f == nil {
			continue // held: a live export's
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
		f.Close()
	}
	return removed
}

// markedHere reports whether the marker file at path is a regular file
// naming this host as the writer's.
func markedHere(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || thisHost == "" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512) // a host name is at most 255 bytes, a pid a few
	n, _ := io.ReadFull(f, b)
	host, _, ok := strings.Cut(strings.TrimSpace(string(b[:n])), " ")
	return ok && host == thisHost
}

// sweptTemps sweeps dir (sweepTemps) before an export writes there, and
// with -v says what it removed.
func sweptTemps(c *config, stderr io.Writer, dir, base string) {
	for _, p := range sweepTemps(dir, base) {
		if c.verbose {
			fmt.Fprintf(stderr, "export: removed %s, the temporary directory of an export that was killed\n", p)
		}
	}
}
