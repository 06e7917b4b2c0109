package lcd

import _ "github.com/chaind/chaind/internal/staking"
