package handlers

// Dynamic number reservation (spec 2.11, 4.9; notes section 11). Issue 3.

import "github.com/gin-gonic/gin"

func (a *API) registerDNI(rt gin.IRoutes) {
}
