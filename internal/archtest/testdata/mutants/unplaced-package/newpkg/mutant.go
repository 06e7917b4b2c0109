// Package newpkg is a package nobody placed in the layers table.
package newpkg
