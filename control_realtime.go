package mockplatform

import "github.com/gin-gonic/gin"

// registerControlRealtime adds the families' control-plane routes under /_mock.
func (p *Platform) registerControlRealtime(g *gin.RouterGroup) {}
