package chronon

//go:generate go run gen_formats.go
