module promcheck

go 1.22

require (
	github.com/prometheus/client_model v0.3.0
	github.com/prometheus/common v0.42.0
)

require (
	github.com/golang/protobuf v1.5.2 // indirect
	github.com/matttproud/golang_protobuf_extensions v1.0.4 // indirect
	google.golang.org/protobuf v1.28.1 // indirect
)
