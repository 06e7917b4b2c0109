package explorer

import _ "github.com/chaind/chaind/p2p"
