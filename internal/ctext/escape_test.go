package ctext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEscapeText(t *testing.T) {
	cases := map[string]string{
		"":                         "",
		"core0.fetch":              "core0.fetch",
		"a\x1b[31mred":             `a\x1b[31mred`,
		"l1\r\nl2\tx":              `l1\r\nl2\tx`,
		"\x00\x01\x1f\x7f":         `\x00\x01\x1f\x7f`,
		"csi\u009b2J and \u0085":   `csi\u009b2J and \u0085`,
		"é ü \u00a0 \u20ac":        "é ü \u00a0 \u20ac", // printable UTF-8 (C2 A0 is not C1)
		"bad \xff\xfe utf8 \xc2":   "bad \xff\xfe utf8 \xc2",
		`back\slash \x1b verbatim`: `back\slash \x1b verbatim`,
	}
	for in, want := range cases {
		require.Equal(t, want, Escape(in), "%q", in)
		require.Equal(t, want, string(AppendEscaped([]byte("p"), []byte(in))[1:]), "%q", in)
		require.Equal(t, want != in, NeedsEscape(in), "%q", in)
	}
	s := "nothing to escape"
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = Escape(s) }))
}
