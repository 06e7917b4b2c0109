package node

import (
	"net/http"
	"strings"

	gqleth "github.com/chaind/chaind/internal/graphql/eth"
)

// withGraphQL serves GraphQL (EIP-1767) at /graphql and its query page at
// /graphql/ui on the JSON-RPC HTTP port, through the same front: its
// limits, CORS and host checks, and its rate limits, which charge each
// GraphQL query as one call.
func (n *Node) withGraphQL(rpcHandler http.Handler) http.Handler {
	gql := n.gql.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/graphql" || strings.HasPrefix(r.URL.Path, "/graphql/") {
			gql.ServeHTTP(w, r)
			return
		}
		rpcHandler.ServeHTTP(w, r)
	})
}

func (n *Node) newGraphQL() error {
	s, err := gqleth.New(n.backend, gqleth.Options{})
	if err != nil {
		return err
	}
	n.gql = s
	return nil
}
