package upstream

// tls.go builds the TLS configuration of https:// and wss:// servers.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// tlsConfig is the TLS configuration the options ask for.
func (u *Upstream) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         u.TLSServerName,
		InsecureSkipVerify: u.TLSInsecureSkipVerify, //nolint:gosec // asked for, for tests
	}
	if len(u.TLSCA) == 0 {
		return cfg, nil
	}
	pool := x509.NewCertPool()
	for _, file := range u.TLSCA {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("upstream tls_ca: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("upstream tls_ca: %s holds no PEM certificate", file)
		}
	}
	cfg.RootCAs = pool
	return cfg, nil
}
