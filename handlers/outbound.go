package handlers

// Outbound calling (spec 2.6, 3.2, 4.6; notes section 8). Issue 5.

import "github.com/gin-gonic/gin"

func (a *API) registerOutbound(rt gin.IRoutes) {
}
