package handlers

// Webhook endpoints and signed deliveries (spec 2.4, 4.4, 6.1; notes section 6). Issue 4.

import "github.com/gin-gonic/gin"

func (a *API) registerWebhooks(rt gin.IRoutes) {
}
