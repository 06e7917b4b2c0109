package querytest

// SDKDiffers are the differences from the Cosmos SDK v0.50 node's answers
// (testdata/sdk050/golden) that chaind keeps, by "transport case path"
// (transport "rest" or "grpc"; case "*" for every case; a path starting
// with "..." matches any path ending so; "status" is the HTTP status or
// gRPC code, "message" the error text), with the reason. lcd's and
// grpcsrv's TestSDKGoldens fail when an entry of their transport is no
// longer needed by any answer, so the list stays true.
var SDKDiffers = map[string]string{}
