package mockplatform

import "github.com/gin-gonic/gin"

// registerControlData adds the families' control-plane routes under /_mock.
func (p *Platform) registerControlData(g *gin.RouterGroup) {}
