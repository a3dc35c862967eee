// Command mkdocs writes docs/cli.md, the command-line reference, from the
// tools themselves: each binary given prints its part (--help-markdown,
// made from its option tables), between markers its tests look for.
//
//	go run ./internal/cli/mkdocs bin/trace_reader bin/tracegen bin/pipesim > docs/cli.md
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chronon-sim/chronon-go/internal/cli"
)

const header = `# Command-line reference

Every command and option of the three tools, made from the tables their
parsers read (` + "`make docs`" + ` regenerates this file; a test of each tool fails when
it is stale). ` + "`trace_reader help CMD`" + `, ` + "`tracegen --help`" + ` and ` + "`pipesim --help`" + ` print
the same; ` + "`make man`" + ` writes them as manual pages under ` + "`bin/man/man1/`" + `.

## Conventions

All three tools read their command line the same way:

- ` + "`--name value`" + ` or ` + "`--name=value`" + `; ` + "`-x value`" + ` for the short aliases (` + "`-o`" + `, ` + "`-v`" + `, ` + "`-h`" + `, ` + "`-c`" + `, ` + "`-n`" + `).
- Options may come before or after the operands; ` + "`--`" + ` ends the options (every later argument
  is a file, even one that starts with ` + "`-`" + `).
- ` + "`-h`" + `/` + "`--help`" + ` (` + "`trace_reader help CMD`" + `) prints the help; ` + "`--version`" + ` or ` + "`version`" + ` prints the
  module's version, the commit the binary was built from with its time and whether the tree
  had uncommitted changes (` + "`dirty`" + `), and the Go version.
- A usage error is one line on stderr, then where the help is
  (` + "`Run 'trace_reader help dump' for usage.`" + `), exit status 2.
- tracegen and pipesim also accept the single-dash spellings of their first releases (` + "`-hazards`" + `,
  ` + "`-unit-id-base 7`" + `, ` + "`-o=FILE`" + `), each with a deprecation note on stderr; they stop working in the
  next release.
- ` + "`trace_reader completion bash|zsh|fish`" + ` prints a completion script (commands, options, export
  formats, trace files).

`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mkdocs BINARY... > docs/cli.md")
		os.Exit(2)
	}
	fmt.Print(header)
	for _, bin := range os.Args[1:] {
		out, err := exec.Command(bin, "--help-markdown").Output()
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkdocs: %s --help-markdown: %v\n", bin, err)
			os.Exit(1)
		}
		name := filepath.Base(bin)
		fmt.Printf("%s%s%s\n", cli.DocBegin(name), out, cli.DocEnd(name))
	}
}
