package consensus

import tm "time"

const longest = 3 * tm.Second

var _ tm.Duration = longest
