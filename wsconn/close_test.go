package wsconn

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobwas/ws"
)

func TestCloseReasonsAreValidUTF8AndFit(t *testing.T) {
	for _, reason := range []string{
		"",
		"server shutting down",
		"bad \xff bytes \xc3",
		strings.Repeat("é", 100),      // 200 bytes: cut between two characters
		"x" + strings.Repeat("€", 60), // 181 bytes: cut inside none of them
		strings.Repeat("\xff", 300),
	} {
		body := closeBody(StatusGoingAway, reason)
		if len(body) > ws.MaxControlFramePayloadSize {
			t.Errorf("%.20q: a close payload of %d bytes", reason, len(body))
		}
		code, got := ws.ParseCloseFrameData(body)
		if code != ws.StatusGoingAway || !utf8.ValidString(got) {
			t.Errorf("%.20q: close frame %d %q", reason, code, got)
		}
		if utf8.ValidString(reason) && !strings.HasPrefix(reason, got) {
			t.Errorf("%.20q: the reason became %q", reason, got)
		}
	}
	if body := closeBody(StatusNoStatus, "ignored"); len(body) != 0 {
		t.Errorf("a close frame without a status has payload %q", body)
	}
}
