package handlers

// Alert rules and active alerts (spec 2.3, 3.1, 4.4, 7.2; notes section 5). Issue 4.

import "github.com/gin-gonic/gin"

func (a *API) registerAlerts(rt gin.IRoutes) {
}
