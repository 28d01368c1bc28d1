package conf

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers each collector on reg; one registered already (by a
// second handler, or before a reload) is not an error.
func Register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			if _, already := errors.AsType[prometheus.AlreadyRegisteredError](err); !already {
				return err
			}
		}
	}
	return nil
}
