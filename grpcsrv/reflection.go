package grpcsrv

import (
	"context"
	"io"
	"net/http"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// Server reflection: the bidirectional ServerReflectionInfo stream of
// grpc.reflection.v1 and of its identical predecessor v1alpha (clients
// try v1 first and fall back). Each request is answered in order; a
// lookup that misses is answered in-band with an error_response, as the
// reference implementation does, and the stream ends when the client
// half-closes it.

const (
	reflectionV1      = "grpc.reflection.v1.ServerReflection"
	reflectionV1Alpha = "grpc.reflection.v1alpha.ServerReflection"
)

// reflPkg names the proto package of one reflection version.
type reflPkg interface{ pkg() string }

type v1 struct{}
type v1alpha struct{}

func (v1) pkg() string      { return "grpc.reflection.v1" }
func (v1alpha) pkg() string { return "grpc.reflection.v1alpha" }

func name[P reflPkg](msg string) string {
	var p P
	return p.pkg() + "." + msg
}

// The message fields of a oneof are pointers, so a present empty value
// (list_services: "") is told from an absent one.

type ServerReflectionRequest[P reflPkg] struct {
	Host                      string               `pb:"1,host"`
	FileByFilename            *string              `pb:"3,file_by_filename"`
	FileContainingSymbol      *string              `pb:"4,file_containing_symbol"`
	FileContainingExtension   *ExtensionRequest[P] `pb:"5,file_containing_extension"`
	AllExtensionNumbersOfType *string              `pb:"6,all_extension_numbers_of_type"`
	ListServices              *string              `pb:"7,list_services"`
}

func (ServerReflectionRequest[P]) ProtoName() string { return name[P]("ServerReflectionRequest") }

type ExtensionRequest[P reflPkg] struct {
	ContainingType  string `pb:"1,containing_type"`
	ExtensionNumber int32  `pb:"2,extension_number"`
}

func (ExtensionRequest[P]) ProtoName() string { return name[P]("ExtensionRequest") }

type ServerReflectionResponse[P reflPkg] struct {
	ValidHost                   string                      `pb:"1,valid_host"`
	OriginalRequest             *ServerReflectionRequest[P] `pb:"2,original_request"`
	FileDescriptorResponse      *FileDescriptorResponse[P]  `pb:"4,file_descriptor_response"`
	AllExtensionNumbersResponse *ExtensionNumberResponse[P] `pb:"5,all_extension_numbers_response"`
	ListServicesResponse        *ListServiceResponse[P]     `pb:"6,list_services_response"`
	ErrorResponse               *ErrorResponse[P]           `pb:"7,error_response"`
}

func (ServerReflectionResponse[P]) ProtoName() string { return name[P]("ServerReflectionResponse") }

type FileDescriptorResponse[P reflPkg] struct {
	FileDescriptorProto [][]byte `pb:"1,file_descriptor_proto"`
}

func (FileDescriptorResponse[P]) ProtoName() string { return name[P]("FileDescriptorResponse") }

type ExtensionNumberResponse[P reflPkg] struct {
	BaseTypeName    string  `pb:"1,base_type_name"`
	ExtensionNumber []int32 `pb:"2,extension_number"`
}

func (ExtensionNumberResponse[P]) ProtoName() string { return name[P]("ExtensionNumberResponse") }

type ListServiceResponse[P reflPkg] struct {
	Service []ServiceResponse[P] `pb:"1,service"`
}

func (ListServiceResponse[P]) ProtoName() string { return name[P]("ListServiceResponse") }

type ServiceResponse[P reflPkg] struct {
	Name string `pb:"1,name"`
}

func (ServiceResponse[P]) ProtoName() string { return name[P]("ServiceResponse") }

type ErrorResponse[P reflPkg] struct {
	ErrorCode    int32  `pb:"1,error_code"`
	ErrorMessage string `pb:"2,error_message"`
}

func (ErrorResponse[P]) ProtoName() string { return name[P]("ErrorResponse") }

// ReflectionFiles are the descriptors of both reflection services, for a
// registry that also describes them.
func ReflectionFiles() []protobuf.File {
	return []protobuf.File{reflectionFile[v1]("grpc/reflection/v1/reflection.proto"),
		reflectionFile[v1alpha]("grpc/reflection/v1alpha/reflection.proto")}
}

func reflectionFile[P reflPkg](file string) protobuf.File {
	var p P
	return protobuf.File{
		Name: file, Package: p.pkg(),
		Messages: []protobuf.Message{ServerReflectionRequest[P]{}, ExtensionRequest[P]{}, ServerReflectionResponse[P]{},
			FileDescriptorResponse[P]{}, ExtensionNumberResponse[P]{}, ListServiceResponse[P]{}, ServiceResponse[P]{}, ErrorResponse[P]{}},
		Services: []protobuf.Service{{Name: "ServerReflection", Methods: []protobuf.Method{{
			Name: "ServerReflectionInfo", In: ServerReflectionRequest[P]{}, Out: ServerReflectionResponse[P]{},
			ClientStreaming: true, ServerStreaming: true}}}},
	}
}

func (s *Server) serveReflection(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/"+reflectionV1+"/ServerReflectionInfo" {
		reflect[v1](ctx, s, w, r)
	} else {
		reflect[v1alpha](ctx, s, w, r)
	}
}

func reflect[P reflPkg](ctx context.Context, s *Server, w http.ResponseWriter, r *http.Request) {
	started := false
	sent := map[string]bool{}
	fail := func(e *query.Error) {
		if started {
			finish(w, e)
		} else {
			trailersOnly(w, e)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			fail(query.AsError(err))
			return
		}
		msg, err := readFrame(r.Body, s.maxRecv)
		if err == io.EOF {
			if !started {
				startStream(w)
			}
			finish(w, nil)
			return
		}
		if err != nil {
			fail(frameError(err, false))
			return
		}
		var req ServerReflectionRequest[P]
		if err := protobuf.Unmarshal(msg, &req); err != nil {
			fail(query.Errorf(query.Internal, "grpc: error unmarshalling request: %v", err))
			return
		}
		resp, qerr := answer(s.reg, &req, sent)
		if qerr != nil {
			fail(qerr)
			return
		}
		out := protobuf.Marshal(resp)
		if !started {
			startStream(w)
			started = true
		}
		w.Write(appendFrame(nil, out))
		w.(http.Flusher).Flush()
	}
}

func answer[P reflPkg](reg *protobuf.Registry, req *ServerReflectionRequest[P], sent map[string]bool) (protobuf.Message, *query.Error) {
	resp := &ServerReflectionResponse[P]{ValidHost: req.Host, OriginalRequest: req}
	notFound := func(msg string) {
		resp.ErrorResponse = &ErrorResponse[P]{ErrorCode: int32(query.NotFound), ErrorMessage: msg}
	}
	files := func(file string) {
		fds, ok := reg.FileWithDeps(file, sent)
		if !ok {
			notFound("file not found: " + file)
			return
		}
		resp.FileDescriptorResponse = &FileDescriptorResponse[P]{FileDescriptorProto: fds}
	}
	switch {
	case req.ListServices != nil:
		list := &ListServiceResponse[P]{Service: []ServiceResponse[P]{}}
		for _, svc := range reg.Services() {
			list.Service = append(list.Service, ServiceResponse[P]{Name: svc})
		}
		resp.ListServicesResponse = list
	case req.FileByFilename != nil:
		files(*req.FileByFilename)
	case req.FileContainingSymbol != nil:
		file, ok := reg.FileContaining(*req.FileContainingSymbol)
		if !ok {
			notFound("symbol not found: " + *req.FileContainingSymbol)
			break
		}
		files(file)
	case req.FileContainingExtension != nil:
		notFound("extension not found") // no message here has extensions
	case req.AllExtensionNumbersOfType != nil:
		if _, ok := reg.FileContaining(*req.AllExtensionNumbersOfType); !ok {
			notFound("type not found: " + *req.AllExtensionNumbersOfType)
			break
		}
		resp.AllExtensionNumbersResponse = &ExtensionNumberResponse[P]{BaseTypeName: *req.AllExtensionNumbersOfType, ExtensionNumber: []int32{}}
	default:
		return nil, query.Errorf(query.InvalidArgument, "invalid MessageRequest: no request kind set")
	}
	return resp, nil
}
