package consensus

func spawn(f func()) { go f() }
