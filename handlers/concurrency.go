package handlers

// Concurrent calls (spec 2.5, 4.5, 7.3; notes section 7). Issue 3.

import "github.com/gin-gonic/gin"

func (a *API) registerConcurrency(rt gin.IRoutes) {
}
