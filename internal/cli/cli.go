// Package cli is the command line every tool of the module shares: one
// option syntax (--long, -x for the short aliases, --opt=value or --opt
// value, options before or after the operands, -- to end them), and, from
// one table per tool, its help, its version, its manual page, its shell
// completion and its Markdown reference, so that none of them can drift
// from what the parser accepts.
package cli

// Tool describes a command-line tool: its commands (trace_reader), or its
// options and operands (a tool without commands, such as tracegen).
type Tool struct {
	Name        string
	Summary     string // one line: what it is for (the man page's NAME)
	Synopsis    string // after the name, for a tool without commands
	Description string // paragraphs, separated by blank lines
	Commands    []*Command
	Options     []*Option // a tool without commands
	Operands    Complete  // a tool without commands
	Exit        string    // what its exit statuses mean
}

// Command is one command of a tool.
type Command struct {
	Name     string
	Synopsis string // after `tool NAME`
	Summary  string // what it does; its first line is its one-line summary
	Options  []*Option
	Operands Complete
	Notes    string // preformatted text after the options (a table of tables)
}

// Option is one option: its spellings, the value it takes, its help.
type Option struct {
	Names    []string // "-o", "--output": short aliases and long names
	Arg      string   // the value's name in help ("FILE"); "" for a switch
	Help     string   // one line
	Complete Complete // what its value completes to
}

// Complete says what a shell completes a value or an operand to.
type Complete struct {
	Words []string // these words
	Files string   // file names matching this glob ("*": any file)
	Dirs  bool     // directories
}

// Long returns o's first long name (--output), else its first name.
func (o *Option) Long() string {
	for _, n := range o.Names {
		if len(n) > 2 && n[:2] == "--" {
			return n
		}
	}
	return o.Names[0]
}

// Brief is the first line of a command's summary.
func (c *Command) Brief() string {
	for i := 0; i < len(c.Summary); i++ {
		if c.Summary[i] == '\n' {
			return c.Summary[:i]
		}
	}
	return c.Summary
}
