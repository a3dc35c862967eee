package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	optOut     = &Option{Names: []string{"-o", "--output"}, Arg: "FILE", Help: "Output"}
	optN       = &Option{Names: []string{"-n", "--instructions"}, Arg: "N", Help: "How many"}
	optHazards = &Option{Names: []string{"--hazards"}, Help: "Hazards"}
	testOpts   = []*Option{optOut, optN, optHazards}
)

// parse runs Parse and renders what it found: "row:name=value" per option.
func parse(args []string, legacy bool) (found []string, operands []string, notes []string, err error) {
	var old func(string, string)
	if legacy {
		old = func(used, instead string) { notes = append(notes, used+" -> "+instead) }
	}
	operands, err = Parse(args, testOpts, func(row int, name, value string) error {
		found = append(found, fmt.Sprintf("%d:%s=%s", row, name, value))
		return nil
	}, old)
	return found, operands, notes, err
}

// One syntax: long options with = or a separate value, short aliases,
// options before and after operands, -- ending them, - an operand.
func TestParseSyntax(t *testing.T) {
	found, ops, notes, err := parse([]string{"a", "--output=x", "-n", "5", "b", "--hazards", "--instructions", "7", "-", "--", "--hazards", "-o"}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"0:--output=x", "1:-n=5", "2:--hazards=", "1:--instructions=7"}, found)
	require.Equal(t, []string{"a", "b", "-", "--hazards", "-o"}, ops)
	require.Empty(t, notes)

	// A value may start with a dash: it is the option's.
	found, _, _, err = parse([]string{"-o", "-x"}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"0:-o=-x"}, found)
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		args    []string
		msg     string
		unknown string
	}{
		{[]string{"--bogus"}, `unknown option "--bogus"`, "--bogus"},
		{[]string{"--bogus=1"}, `unknown option "--bogus=1"`, "--bogus"},
		{[]string{"-hazards"}, `unknown option "-hazards"`, "-hazards"},
		{[]string{"-o=x"}, `unknown option "-o=x"`, "-o=x"},
		{[]string{"--hazards=1"}, "option --hazards takes no value", ""},
		{[]string{"a", "--output"}, "option --output needs a value (FILE)", ""},
		{[]string{"-n"}, "option -n needs a value (N)", ""},
	} {
		_, _, _, err := parse(c.args, false)
		var u *UsageError
		require.ErrorAs(t, err, &u, "%q", c.args)
		require.Equal(t, c.msg, u.Msg, "%q", c.args)
		require.Equal(t, c.unknown, u.Unknown, "%q", c.args)
	}
	// set's error is returned as it is.
	_, err := Parse([]string{"-n", "x"}, testOpts, func(int, string, string) error { return fmt.Errorf("bad n") }, nil)
	require.EqualError(t, err, "bad n")
}

// With legacy on, Go flag's spellings of the first releases still work,
// each with a note saying what to write instead; the new ones get none.
func TestParseLegacy(t *testing.T) {
	found, ops, notes, err := parse([]string{"-instructions", "5", "-hazards", "-output=f", "-o=g", "-n", "3", "--hazards", "op"}, true)
	require.NoError(t, err)
	require.Equal(t, []string{"1:--instructions=5", "2:--hazards=", "0:--output=f", "0:-o=g", "1:-n=3", "2:--hazards="}, found)
	require.Equal(t, []string{"op"}, ops)
	require.Equal(t, []string{"-instructions -> --instructions", "-hazards -> --hazards", "-output=f -> --output=f", "-o=g -> -o g"}, notes)
	_, _, _, err = parse([]string{"-bogus"}, true)
	require.EqualError(t, err, `unknown option "-bogus"`)
	_, _, _, err = parse([]string{"-hazards=true"}, true)
	require.EqualError(t, err, "option --hazards takes no value")
	require.True(t, strings.HasPrefix(Deprecated("pipesim", "-hazards", "--hazards"), "pipesim: -hazards is deprecated"))
}
