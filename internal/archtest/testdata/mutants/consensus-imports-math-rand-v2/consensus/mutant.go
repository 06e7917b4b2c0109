package consensus

import _ "math/rand/v2"
