package load

// worker.go holds one connection's request loop and its checks.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"
)

// worker sends requests on one connection, one at a time.
type worker struct {
	cfg      Config
	url      string
	client   *http.Client
	buf      bytes.Buffer
	lat      []time.Duration
	errs     int64
	firstErr error
	proto    string
}

// once sends one request and checks the answer, returning its latency.
func (w *worker) once(ctx context.Context) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(w.cfg.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", w.cfg.ContentType)
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, err
	}
	w.buf.Reset()
	_, err = w.buf.ReadFrom(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	w.proto = resp.Proto
	return took, w.check(resp)
}

// check fails an answer that is not what the config expects.
func (w *worker) check(resp *http.Response) error {
	if resp.StatusCode != w.cfg.ExpectStatus {
		return fmt.Errorf("status %d, want %d: %.200s", resp.StatusCode, w.cfg.ExpectStatus, w.buf.Bytes())
	}
	if resp.ProtoMajor != wantProtoMajor(w.cfg) {
		return fmt.Errorf("answered over %s, want HTTP/%d", resp.Proto, wantProtoMajor(w.cfg))
	}
	if ct := w.cfg.ExpectContentType; ct != "" && resp.Header.Get("Content-Type") != ct {
		return fmt.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), ct)
	}
	if w.cfg.ExpectBody != nil && !bytes.Equal(w.buf.Bytes(), w.cfg.ExpectBody) {
		return fmt.Errorf("body %.200q, want %.200q", w.buf.Bytes(), w.cfg.ExpectBody)
	}
	return nil
}

// loop sends requests until more reports false, recording latencies when
// record is set.
func (w *worker) loop(ctx context.Context, more func() bool, record bool) {
	for more() {
		took, err := w.once(ctx)
		if err != nil {
			w.errs++
			if w.firstErr == nil {
				w.firstErr = err
			}
			continue
		}
		if record {
			w.lat = append(w.lat, took)
		}
	}
}
