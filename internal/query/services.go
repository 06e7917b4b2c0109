package query

// allServices lists every query service, in the order reflection lists
// them.
func allServices() []*Service {
	return []*Service{
		authService(), bankService(), tendermintService(), distributionService(),
		govService(), slashingService(), stakingService(),
	}
}
