package openrpc

// document.go holds the objects of an OpenRPC 1.3 document, as far as the
// generator writes them.

// Version is the version of the OpenRPC specification the documents
// follow.
const Version = "1.3.2"

// document is an OpenRPC document.
type document struct {
	OpenRPC    string      `json:"openrpc"`
	Info       infoObject  `json:"info"`
	Methods    []method    `json:"methods"`
	Components *components `json:"components,omitempty"`
	// Extensions declares the specification extensions the document uses
	// (x-subscription), as @open-rpc/schema-utils-js reads them.
	Extensions []extension `json:"x-extensions,omitempty"`
}

// infoObject is the document's info.
type infoObject struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version"`
}

// method is a Method Object.
type method struct {
	Name           string              `json:"name"`
	Summary        string              `json:"summary,omitempty"`
	Description    string              `json:"description,omitempty"`
	ParamStructure string              `json:"paramStructure,omitempty"`
	Params         []contentDescriptor `json:"params"`
	Result         *contentDescriptor  `json:"result,omitempty"`
	Subscription   *subscriptionExt    `json:"x-subscription,omitempty"`
}

// The values of paramStructure.
const (
	byName = "by-name"
	either = "either"
)

// contentDescriptor is a Content Descriptor Object: a param or a result.
type contentDescriptor struct {
	Name        string  `json:"name"`
	Summary     string  `json:"summary,omitempty"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *schema `json:"schema"`
}

// components holds the schemas that others reference.
type components struct {
	Schemas map[string]*schema `json:"schemas"`
}
