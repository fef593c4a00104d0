package handlers

// Messaging: access token, sessions, streaming WebSocket (spec 2.2, 3.4, 4.2; notes section 3). Issue 5.

import "github.com/gin-gonic/gin"

func (a *API) registerMessaging(rt gin.IRoutes) {
}
