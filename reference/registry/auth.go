package registry

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/configfile"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// Keychain finds registry credentials where containers' tools and Docker keep them, first
// match wins: $REGISTRY_AUTH_FILE, containers' auth.json ($XDG_RUNTIME_DIR/containers/auth.json,
// or /run/containers/UID/auth.json; then $XDG_CONFIG_HOME or ~/.config/containers/auth.json),
// then Docker's config.json and its credential helpers (go-containerregistry's default keychain).
func Keychain() authn.Keychain {
	var files []string
	if f := os.Getenv("REGISTRY_AUTH_FILE"); f != "" {
		files = append(files, f)
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		files = append(files, filepath.Join(d, "containers", "auth.json"))
	} else {
		files = append(files, filepath.Join("/run/containers", fmt.Sprint(os.Getuid()), "auth.json"))
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if home, err := os.UserHomeDir(); cfg == "" && err == nil {
		cfg = filepath.Join(home, ".config")
	}
	if cfg != "" {
		files = append(files, filepath.Join(cfg, "containers", "auth.json"))
	}
	kcs := make([]authn.Keychain, 0, len(files)+1)
	for _, f := range files {
		kcs = append(kcs, authFile(f))
	}
	return authn.NewMultiKeychain(append(kcs, authn.DefaultKeychain)...)
}

// authFile is the keychain of one auth.json (the format of Docker's config.json); a missing
// file has no credentials.
type authFile string

// Resolve returns the credentials the file holds for the repository or its registry.
func (f authFile) Resolve(target authn.Resource) (authn.Authenticator, error) {
	r, err := os.Open(string(f))
	if os.IsNotExist(err) {
		return authn.Anonymous, nil
	} else if err != nil {
		return nil, fmt.Errorf("registry credentials %s: %w", f, err)
	}
	defer r.Close()
	cf, err := config.LoadFromReader(r)
	if err != nil {
		return nil, fmt.Errorf("registry credentials %s: %w", f, err)
	}
	return lookup(cf, target)
}

// lookup finds the entry for the repository, then for its registry (containers' order).
func lookup(cf *configfile.ConfigFile, target authn.Resource) (authn.Authenticator, error) {
	for _, key := range []string{target.String(), target.RegistryStr()} {
		if key == name.DefaultRegistry {
			key = authn.DefaultAuthKey
		}
		e, ok := cf.AuthConfigs[key]
		if !ok {
			continue
		}
		return authn.FromConfig(authn.AuthConfig{Username: e.Username, Password: e.Password, Auth: e.Auth,
			IdentityToken: e.IdentityToken, RegistryToken: e.RegistryToken}), nil
	}
	return authn.Anonymous, nil
}
