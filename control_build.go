package mockplatform

import "github.com/gin-gonic/gin"

// registerControlBuild adds the families' control-plane routes under /_mock.
func (p *Platform) registerControlBuild(g *gin.RouterGroup) {}
