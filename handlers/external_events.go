package handlers

// External events (spec 4.7, 6.2, 7.4; notes section 9). Issue 3.

import "github.com/gin-gonic/gin"

func (a *API) registerExternalEvents(rt gin.IRoutes) {
}
