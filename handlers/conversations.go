package handlers

// Conversations API v1/v2/v3 (spec 2.10, 4.8, 9; notes section 10). Issue 3.

import "github.com/gin-gonic/gin"

func (a *API) registerConversations(rt gin.IRoutes) {
}
