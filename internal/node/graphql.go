package node

import (
	"net/http"
	"strings"

	"github.com/chaind/chaind/internal/front"
	gqleth "github.com/chaind/chaind/internal/graphql/eth"
)

// withGraphQL serves GraphQL (EIP-1767) at /graphql and its query page at
// /graphql/ui on the JSON-RPC HTTP port, through the same front: its
// limits, CORS and host checks, and its rate limits, which charge each
// GraphQL query as one call. The front's refusals of GraphQL requests
// come in GraphQL's error shape.
func (n *Node) withGraphQL(l front.Listener) front.Listener {
	gql, rpcHandler, rpcRefuse := n.gql.Handler(), l.Handler, l.Options.Refuse
	l.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isGraphQL(r) {
			gql.ServeHTTP(w, r)
			return
		}
		rpcHandler.ServeHTTP(w, r)
	})
	l.Options.Refuse = func(w http.ResponseWriter, r *http.Request, ref front.Refusal) {
		if isGraphQL(r) {
			gqleth.Refuse(w, r, ref)
			return
		}
		if rpcRefuse == nil {
			front.PlainRefuser(w, r, ref)
			return
		}
		rpcRefuse(w, r, ref)
	}
	return l
}

func isGraphQL(r *http.Request) bool {
	return r.URL.Path == "/graphql" || strings.HasPrefix(r.URL.Path, "/graphql/")
}

func (n *Node) newGraphQL() error {
	s, err := gqleth.New(n.backend, gqleth.Options{})
	if err != nil {
		return err
	}
	n.gql = s
	return nil
}
