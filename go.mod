module github.com/chronon-sim/chronon-go

go 1.26.0

require (
	github.com/bits-and-blooms/bitset v1.29.0
	github.com/google/flatbuffers v25.12.19+incompatible
	github.com/klauspost/compress v1.20.3
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	google.golang.org/protobuf v1.36.12
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
