package handlers

// Handoff state (spec 2.12, 4.10; notes section 12). Issue 3.

import "github.com/gin-gonic/gin"

func (a *API) registerHandoff(rt gin.IRoutes) {
}
