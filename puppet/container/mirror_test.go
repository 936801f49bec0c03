package container

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSources(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sources.list.d"), 0o755)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestHostMirror(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string // "" means an error
	}{
		{"one-line", map[string]string{"sources.list": "# comment\ndeb-src http://127.0.0.4/debian bookworm main\n" +
			"deb [arch=amd64 signed-by=/k.gpg] http://127.0.0.1:3142/debian/ bookworm main contrib\n"}, "http://127.0.0.1:3142/debian"},
		{"deb822 after a disabled stanza and security", map[string]string{"sources.list.d/debian.sources": "Types: deb\nURIs: http://127.0.0.2/debian\nSuites: bookworm\nComponents: main\nEnabled: no\n\n" +
			"Types: deb\n# a comment\nURIs: http://127.0.0.3/debian-security\nSuites: bookworm-security\nComponents: main\n\n" +
			"Types: deb deb-src\nURIs: https://127.0.0.1:3142/debian\nSuites: bookworm\n bookworm-updates\nComponents: main\n"}, "https://127.0.0.1:3142/debian"},
		{"other suite and component only", map[string]string{"sources.list": "deb http://127.0.0.1:3142/debian trixie main\ndeb http://127.0.0.1:3142/debian bookworm contrib\n"}, ""},
		{"file: and cdrom: are not mirrors", map[string]string{"sources.list": "deb file:/srv/debian bookworm main\ndeb cdrom:[x]/ bookworm main\n"}, ""},
		{"disabled files are not read", map[string]string{"sources.list.d/x.list.disabled": "deb http://127.0.0.1:3142/debian bookworm main\n"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HostMirror(writeSources(t, tc.files), "bookworm")
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "--mirror") {
					t.Errorf("got %q, %v; want an error that names --mirror", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
