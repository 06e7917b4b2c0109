package consensus

import . "time"

var _ Duration
