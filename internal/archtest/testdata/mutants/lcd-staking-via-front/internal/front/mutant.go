package front

import _ "github.com/chaind/chaind/internal/staking"
