package rpccore

// sources.go lists the subscription sources a server has, for discovery
// documents.

import (
	"cmp"
	"slices"
)

// SubscriptionSource is a source registered with RegisterSubscription.
type SubscriptionSource struct {
	// Namespace is the source's namespace: clients subscribe with
	// <Namespace>_subscribe and receive <Namespace>_subscription
	// notifications.
	Namespace string
	// Name is the name a subscribe call gives first.
	Name string
	// Method is the source; its params are the subscribe call's
	// arguments after the name.
	Method *Method
}

// SubscriptionSources returns every subscription source registered, by
// namespace then name.
func (s *Server) SubscriptionSources() []SubscriptionSource {
	s.mu.Lock()
	spaces := make([]*subscriptionSources, 0, len(s.subscriptions))
	names := make([]string, 0, len(s.subscriptions))
	for name, ns := range s.subscriptions {
		spaces, names = append(spaces, ns), append(names, name)
	}
	s.mu.Unlock()
	var out []SubscriptionSource
	for i, ns := range spaces {
		ns.mu.RLock()
		for name, m := range ns.sources {
			out = append(out, SubscriptionSource{Namespace: names[i], Name: name, Method: m})
		}
		ns.mu.RUnlock()
	}
	slices.SortFunc(out, func(a, b SubscriptionSource) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}
