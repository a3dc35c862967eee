package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// Version describes the build of a tool from what the Go toolchain
// recorded in it: the module and its version ((devel) for a build from a
// source tree the toolchain could not version), the VCS revision and its
// time, whether the tree had uncommitted changes, and the Go version.
//
//	trace_reader v1.2.0
//	module github.com/chronon-sim/chronon-go
//	commit 5c0d0d7e9f3f6a2b1c8e7d6f5a4b3c2d1e0f9a8b (2026-03-01T10:00:00Z), dirty (uncommitted changes)
//	go1.26.0 linux/amd64
func Version(tool string, bi *debug.BuildInfo) string {
	if bi == nil {
		return tool + " (unknown version: built without module information)\n"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", tool, version)
	if bi.Main.Path != "" {
		fmt.Fprintf(&b, "module %s\n", bi.Main.Path)
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", dirty (uncommitted changes)")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit unknown (built without version control information)\n")
	}
	goos, goarch := settings["GOOS"], settings["GOARCH"]
	fmt.Fprintf(&b, "%s", bi.GoVersion)
	if goos != "" && goarch != "" {
		fmt.Fprintf(&b, " %s/%s", goos, goarch)
	}
	b.WriteString("\n")
	return b.String()
}

// BuildVersion is Version of the running binary.
func BuildVersion(tool string) string {
	bi, _ := debug.ReadBuildInfo()
	return Version(tool, bi)
}

// Source names the module and its version, for a manual page's footer:
// "chronon-go v1.2.0".
func Source() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	name := bi.Main.Path[strings.LastIndex(bi.Main.Path, "/")+1:]
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	return name + " " + v
}

// Date is the day of the commit the binary was built from, YYYY-MM-DD; for
// a build that recorded none, today's (a manual page's date is required).
func Date() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && len(s.Value) >= 10 {
				return s.Value[:10]
			}
		}
	}
	return time.Now().UTC().Format(time.DateOnly)
}
