package query

// allServices lists every query service, in the order reflection lists
// them.
func allServices() []*Service {
	return []*Service{
		authService(), bankService(), tendermintService(), nodeService(), distributionService(),
		govService(), govV1Service(), mintService(), slashingService(), stakingService(), txService(), upgradeService(),
	}
}

// volatile marks a method whose answer can change while the head does
// not, so its answers are never cached.
func volatile(m *Method) *Method {
	m.volatile = true
	return m
}
