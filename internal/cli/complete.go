package cli

import (
	"fmt"
	"io"
	"strings"
)

// Shells are the shells WriteCompletion writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// WriteCompletion writes a script that teaches shell to complete t's
// command lines: command names, each command's options, the values of the
// options that take a fixed set, file names where a file is expected.
func WriteCompletion(w io.Writer, t *Tool, shell string) error {
	switch shell {
	case "bash":
		writeBash(w, t)
	case "zsh":
		writeZsh(w, t)
	case "fish":
		writeFish(w, t)
	default:
		return &UsageError{Msg: fmt.Sprintf("no completion for shell %q (shells: %s)", shell, strings.Join(Shells, ", "))}
	}
	return nil
}

// scope is what completes within one command (or a tool without them).
type scope struct {
	name     string // the command; "" for the tool itself
	options  []*Option
	operands Complete
}

func scopes(t *Tool) []scope {
	if t.Commands == nil {
		return []scope{{"", t.Options, t.Operands}}
	}
	var ss []scope
	for _, c := range t.Commands {
		ss = append(ss, scope{c.Name, c.Options, c.Operands})
	}
	return ss
}

func commandNames(t *Tool) []string {
	var names []string
	for _, c := range t.Commands {
		names = append(names, c.Name)
	}
	return names
}

func allNames(opts []*Option) []string {
	var names []string
	for _, o := range opts {
		names = append(names, o.Names...)
	}
	return names
}

// funcName is t's name as part of a shell function name.
func funcName(t *Tool) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name)
}

// shortHelp is the first clause of a help line: completion menus are narrow.
func shortHelp(s string) string {
	for _, cut := range []string{"; ", " ("} {
		if i := strings.Index(s, cut); i > 0 {
			s = s[:i]
		}
	}
	return s
}

// sq quotes s for a POSIX shell (and zsh): between single quotes.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeBash(w io.Writer, t *Tool) {
	f := "_" + funcName(t)
	fmt.Fprintf(w, "# bash completion for %s: source it (source <(%s completion bash)), or install\n", t.Name, t.Name)
	fmt.Fprintf(w, "# it as /usr/share/bash-completion/completions/%s.\n", t.Name)
	fmt.Fprintf(w, "%s_files() { # $1: a glob of file names (\"*\": any), $2: 1 for directories\n", f)
	fmt.Fprintf(w, "\tlocal IFS=$'\\n'\n")
	fmt.Fprintf(w, "\tif [[ $2 == 1 ]]; then COMPREPLY=($(compgen -d -- \"$cur\"))\n")
	fmt.Fprintf(w, "\telif [[ $1 == '*' ]]; then COMPREPLY=($(compgen -f -- \"$cur\"))\n")
	fmt.Fprintf(w, "\telif [[ -n $1 ]]; then COMPREPLY=($(compgen -d -- \"$cur\") $(compgen -f -X \"!$1\" -- \"$cur\"))\n")
	fmt.Fprintf(w, "\tfi\n}\n")
	fmt.Fprintf(w, "%s() {\n", f)
	fmt.Fprintf(w, "\tlocal cur=${COMP_WORDS[COMP_CWORD]} opt=${COMP_WORDS[COMP_CWORD-1]} cmd= i ended=0 first=1\n")
	fmt.Fprintf(w, "\tCOMPREPLY=()\n")
	fmt.Fprintf(w, "\t# --opt=value: bash cuts the word at '=' (COMP_WORDBREAKS).\n")
	fmt.Fprintf(w, "\tif [[ $cur == = ]]; then cur=\n")
	fmt.Fprintf(w, "\telif [[ $opt == = ]] && ((COMP_CWORD > 1)); then opt=${COMP_WORDS[COMP_CWORD-2]}\n")
	fmt.Fprintf(w, "\tfi\n")
	if t.Commands != nil {
		fmt.Fprintf(w, "\tif ((COMP_CWORD == 1)); then\n")
		fmt.Fprintf(w, "\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n", sq(strings.Join(append(commandNames(t), allNames(t.Options)...), " ")))
		fmt.Fprintf(w, "\t\treturn 0\n\tfi\n")
		fmt.Fprintf(w, "\tcmd=${COMP_WORDS[1]} first=2\n")
	}
	fmt.Fprintf(w, "\tfor ((i = first; i < COMP_CWORD; i++)); do [[ ${COMP_WORDS[i]} == -- ]] && ended=1; done\n")
	fmt.Fprintf(w, "\tcase $cmd in\n")
	for _, s := range scopes(t) {
		fmt.Fprintf(w, "\t%s)\n", sq(s.name))
		fmt.Fprintf(w, "\t\tif ((!ended)); then\n\t\t\tcase $opt in\n")
		for _, o := range s.options {
			if o.Arg == "" {
				continue
			}
			fmt.Fprintf(w, "\t\t\t%s) %s; return 0 ;;\n", strings.Join(o.Names, "|"), bashComplete(f, o.Complete))
		}
		fmt.Fprintf(w, "\t\t\tesac\n")
		fmt.Fprintf(w, "\t\t\tif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W %s -- \"$cur\")); return 0; fi\n", sq(strings.Join(allNames(s.options), " ")))
		fmt.Fprintf(w, "\t\tfi\n\t\t%s\n\t\t;;\n", bashComplete(f, s.operands))
	}
	fmt.Fprintf(w, "\tesac\n\treturn 0\n}\n")
	fmt.Fprintf(w, "complete -o filenames -F %s %s\n", f, t.Name)
}

func bashComplete(f string, c Complete) string {
	switch {
	case len(c.Words) > 0:
		return fmt.Sprintf("COMPREPLY=($(compgen -W %s -- \"$cur\"))", sq(strings.Join(c.Words, " ")))
	case c.Dirs:
		return f + "_files '' 1"
	case c.Files != "":
		return f + "_files " + sq(c.Files)
	}
	return ":"
}

func writeZsh(w io.Writer, t *Tool) {
	f := "_" + funcName(t)
	fmt.Fprintf(w, "#compdef %s\n", t.Name)
	fmt.Fprintf(w, "# zsh completion for %s: source it (source <(%s completion zsh)) after compinit,\n", t.Name, t.Name)
	fmt.Fprintf(w, "# or install it as %s in a directory of $fpath.\n", f)
	fmt.Fprintf(w, "%s() {\n", f)
	if t.Commands != nil {
		fmt.Fprintf(w, "\tlocal -a commands\n\tcommands=(\n")
		for _, c := range t.Commands {
			fmt.Fprintf(w, "\t\t%s\n", sq(strings.ReplaceAll(c.Name, ":", `\:`)+":"+shortHelp(c.Brief())))
		}
		fmt.Fprintf(w, "\t)\n")
		fmt.Fprintf(w, "\tif ((CURRENT == 2)); then\n")
		fmt.Fprintf(w, "\t\tif [[ $PREFIX == -* ]]; then compadd -- %s; else _describe -t commands %s commands; fi\n",
			strings.Join(allNames(t.Options), " "), sq(t.Name+" command"))
		fmt.Fprintf(w, "\t\treturn\n\tfi\n")
		fmt.Fprintf(w, "\tlocal cmd=$words[2]\n")
		// The command's words start at its name (an empty current word kept).
		fmt.Fprintf(w, "\tshift words\n\t((CURRENT--))\n")
	} else {
		fmt.Fprintf(w, "\tlocal cmd=\n")
	}
	fmt.Fprintf(w, "\tcase $cmd in\n")
	for _, s := range scopes(t) {
		fmt.Fprintf(w, "\t(%s)\n\t\t_arguments -S", sq(s.name))
		for _, o := range s.options {
			for _, n := range o.Names {
				spec := "*" + n
				if o.Arg != "" && strings.HasPrefix(n, "--") {
					spec += "="
				}
				spec += "[" + zshHelp(o.Help) + "]"
				if o.Arg != "" {
					spec += ":" + zshMessage(o.Arg) + ":" + zshAction(o.Complete)
				}
				fmt.Fprintf(w, " \\\n\t\t\t%s", sq(spec))
			}
		}
		if a := zshAction(s.operands); a != " " {
			fmt.Fprintf(w, " \\\n\t\t\t%s", sq("*:operand:"+a))
		}
		fmt.Fprintf(w, "\n\t\t;;\n")
	}
	fmt.Fprintf(w, "\tesac\n}\n")
	fmt.Fprintf(w, "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n\t%s \"$@\"\nelse\n\tcompdef %s %s\nfi\n", f, f, t.Name)
}

// zshHelp makes a help line fit between the brackets of an _arguments spec.
func zshHelp(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", `\`, `\\`).Replace(shortHelp(s))
}

func zshMessage(s string) string { return strings.ReplaceAll(s, ":", `\:`) }

func zshAction(c Complete) string {
	switch {
	case len(c.Words) > 0:
		return "(" + strings.Join(c.Words, " ") + ")"
	case c.Dirs:
		return "_files -/"
	case c.Files == "*":
		return "_files"
	case c.Files != "":
		return `_files -g "` + c.Files + `"`
	}
	return " "
}

func writeFish(w io.Writer, t *Tool) {
	fmt.Fprintf(w, "# fish completion for %s: source it (%s completion fish | source), or install it\n", t.Name, t.Name)
	fmt.Fprintf(w, "# as ~/.config/fish/completions/%s.fish.\n", t.Name)
	c := "complete -c " + t.Name
	// The files a glob matches, and directories to descend into
	// (__fish_complete_suffix offers every other file too).
	fmt.Fprintf(w, "function __%s_files --argument-names glob\n", funcName(t))
	fmt.Fprintf(w, "\tfor f in (commandline -ct)*\n")
	fmt.Fprintf(w, "\t\tif test -d $f\n\t\t\techo $f/\n")
	fmt.Fprintf(w, "\t\telse if string match -q -- $glob (string replace -r '.*/' '' -- $f)\n\t\t\techo $f\n")
	fmt.Fprintf(w, "\t\tend\n\tend\nend\n")
	fmt.Fprintf(w, "%s -f\n", c)
	if t.Commands != nil {
		for _, cmd := range t.Commands {
			fmt.Fprintf(w, "%s -n __fish_use_subcommand -a %s -d %s\n", c, fishQ(cmd.Name), fishQ(shortHelp(cmd.Brief())))
		}
		for _, o := range t.Options {
			fmt.Fprintf(w, "%s -n __fish_use_subcommand%s\n", c, fishOption(t, o))
		}
	}
	for _, s := range scopes(t) {
		cond := ""
		if s.name != "" {
			cond = " -n " + fishQ("__fish_seen_subcommand_from "+s.name)
		}
		for _, o := range s.options {
			fmt.Fprintf(w, "%s%s%s\n", c, cond, fishOption(t, o))
		}
		if a := fishValues(t, s.operands); a != "" {
			fmt.Fprintf(w, "%s%s%s\n", c, cond, a)
		}
	}
}

func fishOption(t *Tool, o *Option) string {
	var b strings.Builder
	for _, n := range o.Names {
		switch {
		case strings.HasPrefix(n, "--"):
			fmt.Fprintf(&b, " -l %s", n[2:])
		case len(n) == 2:
			fmt.Fprintf(&b, " -s %s", n[1:])
		default:
			fmt.Fprintf(&b, " -o %s", n[1:])
		}
	}
	if o.Arg != "" {
		// -r: a value follows; -x: one that is not a file name.
		if v := fishValues(t, o.Complete); strings.Contains(v, "-F") || strings.Contains(v, "_files ") || strings.Contains(v, "__fish_complete") {
			b.WriteString(" -r" + v)
		} else {
			b.WriteString(" -x" + v)
		}
	}
	fmt.Fprintf(&b, " -d %s", fishQ(shortHelp(o.Help)))
	return b.String()
}

func fishValues(t *Tool, c Complete) string {
	switch {
	case len(c.Words) > 0:
		return " -a " + fishQ(strings.Join(c.Words, " "))
	case c.Dirs:
		return " -a '(__fish_complete_directories)'"
	case c.Files == "*":
		return " -F"
	case c.Files != "":
		return " -a " + fishQ("(__"+funcName(t)+"_files "+fishQ(c.Files)+")")
	}
	return ""
}

// fishQ quotes s for fish: between single quotes, \ and ' escaped.
func fishQ(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
