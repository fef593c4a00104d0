package handlers

// Agents API: agents, branches, deployments, telephony, real-time configs (spec 2.7-2.9, 3.3, 4.3, 7.1; notes section 4). Issue 4.

import "github.com/gin-gonic/gin"

func (a *API) registerAgents(rt gin.IRoutes) {
}
