package msg

// AlignCut moves a tail start back off tool results onto the assistant turn
// that made the calls, so a group is never split.
func AlignCut(msgs []Message, cut, lo int) int {
	for cut > lo && cut < len(msgs) && msgs[cut].Role == RoleTool {
		cut--
	}
	return cut
}

// LastIndex returns the index of the last message at or after lo for which
// ok holds, or -1.
func LastIndex(msgs []Message, lo int, ok func(Message) bool) int {
	for i := len(msgs) - 1; i >= lo; i-- {
		if ok(msgs[i]) {
			return i
		}
	}
	return -1
}

func IsSystem(m Message) bool { return m.Role == RoleSystem || m.Role == RoleDeveloper }
