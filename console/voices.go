package console

import (
	"net/http"
	"strings"

	"github.com/agentplatform/mockplatform/engine/audio"
)

type voicesPage struct {
	page
	Caches    []audio.AgentAudio
	Libraries []audio.AccountVoices
	Error     string
}

// handleVoices serves the audio caches and voice libraries.
func (c *Console) handleVoices(w http.ResponseWriter, r *http.Request) {
	p := voicesPage{page: c.newPage(r, "voices", "Voices and audio")}
	var problems []string
	var err error
	if p.Caches, err = c.b.AudioCaches(); err != nil {
		problems = append(problems, "audio caches: "+err.Error())
	}
	if p.Libraries, err = c.b.VoiceLibraries(); err != nil {
		problems = append(problems, "voice libraries: "+err.Error())
	}
	status := http.StatusOK
	if problems != nil {
		p.Error = "Could not read " + strings.Join(problems, "; ")
		status = http.StatusInternalServerError
	}
	c.render(w, r, "voices", status, p)
}
