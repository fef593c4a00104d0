package handlers

import (
	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// Principal is who a request acts as, once authenticated: the credential and
// the account and project it resolved to.
type Principal struct {
	Cred    *scenario.Credential
	Account *scenario.Account
	// Project is the path's project, or the credential's when the path
	// names none (nil for account-wide keys on account-wide routes).
	Project *scenario.Project
	// Region is the region pair (us, uk, eu).
	Region string
	// Connector is the chat connector token (X-TOKEN), chat only.
	Connector *scenario.Credential
}

func principal(c *gin.Context) *Principal { return stateOf(c).principal }

// Messages of authentication errors that tests compare.
const (
	msgMissingKey    = "Missing API key."
	msgInvalidKey    = "Invalid API key."
	msgMissingToken  = "Missing connector token."
	msgInvalidToken  = "Invalid connector token."
	msgNoPermission  = "The API key does not have permission for this resource."
	msgTokenMismatch = "The connector token does not belong to this project."
)

// authenticate is the one authentication step of every family
// (docs/api.md#auth; docs/fidelity.md M4): the family's credential header, a
// key of that family, in the request's region, scoped to the path's account
// and project.
//
// Missing, unknown, disabled, other-family and other-region keys are 401.
// A valid key of another account or project is 403 in families whose
// errors list 403 (Family.Forbid), else 401. An account or project that
// does not exist at all is 404.
//
// It fills p, which the caller holds (reqState.principalVal); after an
// error p may be partly filled and is not read.
func (a *API) authenticate(c *gin.Context, f *Family, p *Principal) error {
	w := a.world()
	key := ""
	for _, h := range f.Headers {
		if key = c.GetHeader(h); key != "" {
			break
		}
	}
	if key == "" {
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgMissingKey}
	}
	region, _ := regionPair(f.Base, c.Param("region"))
	cred := w.credential(key)
	if cred == nil || cred.Kind != f.Credential {
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	acct := w.account(cred.Account)
	if acct == nil || (f.Base != "messaging" && acct.Region != region) {
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	*p = Principal{Cred: cred, Account: acct, Region: acct.Region}
	if cred.Project != "" {
		p.Project = acct.Project(cred.Project)
	}
	if err := scopeCheck(c, w, f, p); err != nil {
		return err
	}
	if f.Connector {
		if err := a.connector(c, w, p); err != nil {
			return err
		}
	}
	return nil
}

// scopeCheck matches the path's account and project against the key's
// scope and resolves p.Project from the path.
func scopeCheck(c *gin.Context, w *World, f *Family, p *Principal) error {
	deny := func() error {
		if f.Forbid {
			return &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: msgNoPermission}
		}
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	acctRef, projRef := c.Param("account"), c.Param("project")
	if acctRef == "" {
		return nil
	}
	acct := w.account(acctRef)
	if acct == nil {
		return &Error{Kind: KindNotFound, Code: "ACCOUNT_NOT_FOUND", Message: "Account ID does not exist."}
	}
	if acct != p.Account {
		return deny()
	}
	if projRef == "" {
		return nil
	}
	proj := acct.Project(projRef)
	if proj == nil {
		return &Error{Kind: KindNotFound, Code: "PROJECT_NOT_FOUND", Message: "Project ID does not exist."}
	}
	if p.Project != nil && p.Project != proj {
		return deny()
	}
	p.Project = proj
	return nil
}

// connector checks the chat X-TOKEN: a connector token of the same account
// and project (docs/api.md#auth: it fixes the client environment and
// optionally the variant).
func (a *API) connector(c *gin.Context, w *World, p *Principal) error {
	tok := c.GetHeader("X-Token")
	if tok == "" {
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgMissingToken}
	}
	cred := w.credential(tok)
	if cred == nil || cred.Kind != scenario.KindConnector {
		return &Error{Kind: KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidToken}
	}
	if w.account(cred.Account) != p.Account || p.Project == nil || p.Account.Project(cred.Project) != p.Project {
		return &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: msgTokenMismatch}
	}
	p.Connector = cred
	return nil
}
