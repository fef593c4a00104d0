package handlers

import (
	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/scenario"
)

func principal(c *gin.Context) *engine.Principal { return stateOf(c).principal }

// Messages of authentication errors that tests compare.
const (
	msgMissingKey    = "Missing API key."
	msgInvalidKey    = "Invalid API key."
	msgMissingToken  = "Missing connector token."
	msgInvalidToken  = "Invalid connector token."
	msgNoPermission  = engine.MsgNoPermission
	msgTokenMismatch = "The connector token does not belong to this project."
)

// authenticate checks the family's credential header: a key of the
// family, in the request's region, scoped to the path's account and
// project (docs/api.md#auth; docs/fidelity.md M4). A missing or bad key is
// 401; another account's or project's is 403 where Family.Forbid, else
// 401; an unknown account or project is 404. It fills p (partly, on error).
func (a *API) authenticate(c *gin.Context, f *Family, p *engine.Principal) error {
	w := a.View()
	key := ""
	for _, h := range f.Headers {
		if key = c.GetHeader(h); key != "" {
			break
		}
	}
	if key == "" {
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgMissingKey}
	}
	region, _ := engine.RegionPair(f.Base, c.Param("region"))
	cred := w.Credential(key)
	if cred == nil || cred.Kind != f.Credential {
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	acct := w.Account(cred.Account)
	if acct == nil || (f.Base != "messaging" && acct.Region != region) {
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	*p = engine.Principal{Cred: cred, Account: acct, Region: acct.Region}
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
func scopeCheck(c *gin.Context, w *engine.View, f *Family, p *engine.Principal) error {
	deny := func() error {
		if f.Forbid {
			return &engine.Error{Kind: engine.KindForbidden, Code: "FORBIDDEN", Message: msgNoPermission}
		}
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidKey}
	}
	acctRef, projRef := c.Param("account"), c.Param("project")
	if acctRef == "" {
		return nil
	}
	acct := w.Account(acctRef)
	if acct == nil {
		return &engine.Error{Kind: engine.KindNotFound, Code: "ACCOUNT_NOT_FOUND", Message: "Account ID does not exist."}
	}
	if acct != p.Account {
		return deny()
	}
	if projRef == "" {
		return nil
	}
	proj := acct.Project(projRef)
	if proj == nil {
		return &engine.Error{Kind: engine.KindNotFound, Code: "PROJECT_NOT_FOUND", Message: "Project ID does not exist."}
	}
	if p.Project != nil && p.Project != proj {
		return deny()
	}
	p.Project = proj
	return nil
}

// connector checks the chat X-TOKEN: a connector token of the same
// account and project (docs/api.md#auth).
func (a *API) connector(c *gin.Context, w *engine.View, p *engine.Principal) error {
	tok := c.GetHeader("X-Token")
	if tok == "" {
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgMissingToken}
	}
	cred := w.Credential(tok)
	if cred == nil || cred.Kind != scenario.KindConnector {
		return &engine.Error{Kind: engine.KindUnauthorized, Code: "UNAUTHORIZED", Message: msgInvalidToken}
	}
	if w.Account(cred.Account) != p.Account || p.Project == nil || p.Account.Project(cred.Project) != p.Project {
		return &engine.Error{Kind: engine.KindForbidden, Code: "FORBIDDEN", Message: msgTokenMismatch}
	}
	p.Connector = cred
	return nil
}
