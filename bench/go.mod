module github.com/agentplatform/mockplatform/bench

go 1.26
