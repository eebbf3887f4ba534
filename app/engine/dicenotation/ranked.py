"""The exact distribution of the sum of the k highest of n like dice (`kh`, and through it
`kl`, `dh`, `dl`), by the value of the k-th highest die.

For each face t a die can show, the rolls whose k-th highest die shows t are those with
`a < k` dice above t, `c` dice on t with `a + c >= k`, and the `b = n - a - c` others below:
n!/(a! b! c!) of them for each choice of values, and their kept sum is the a dice above t
plus (k - a) times t. Summed with FLINT's integer polynomials in x (a die above t is
x^(v - t)), one face at a time: about k polynomial products per face, or n - k when fewer
(then the same sum is written from the dice below t). icepool's pool algorithm, which this
replaces for sums, took seconds for 100d10kh50 or 100d20kh99; this takes milliseconds.

`keep_ends` sums what d20's joined selectors keep of both ends (`kh1kl1`, dice@3), which no
single rank names; it walks the faces with every count of dice placed, so it is capped
harder (`odds.MAX_BOTH_ENDS`).
"""

from __future__ import annotations

from math import comb

from flint import fmpz_poly


def keep_highest(weights: dict[int, int], n: int, k: int) -> dict[int, int]:
    """Integer weights, by value, of the sum of the k highest of n dice that each show a
    value with the given weights (over the n-th power of their total), for 1 <= k <= n."""
    values = sorted(v for v, w in weights.items() if w)
    low, high = values[0], values[-1]
    dropped = n - k
    result = fmpz_poly(0)
    below = 0  # the weight of the values under t
    for t in values:
        on = weights[t]
        above = fmpz_poly([0] + [weights.get(v, 0) for v in range(t + 1, high + 1)])
        if k <= 2 * dropped + 4:
            kept = _by_dice_above(above, on, below, n, k)
        else:
            kept = _by_dice_below(above, on, below, n, k)
        # Every kept die is t plus what x counts above t: x^(k t), values shifted by `low`.
        result += kept * fmpz_poly([0] * (k * (t - low)) + [1])
        below += on
    return {k * low + i: int(c) for i, c in enumerate(result.coeffs()) if c}


def _by_dice_above(above: fmpz_poly, on: int, below: int, n: int, k: int) -> fmpz_poly:
    """Σ over a < k of C(n, a) · above^a · T(n - a, k - a), where T(m, j) = Σ over c >= j of
    C(m, c) on^c below^(m - c) counts the dice on t and below it; by Horner in `above`."""
    # T(n-k+1, 1) = (on + below)^(n-k+1) - below^(n-k+1), then from a + 1 to a:
    # T(n-a, k-a) = (on + below) T(n-a-1, k-a-1) - C(n-a-1, k-a-1) on^(k-a-1) below^(n-k+1).
    below_power = below ** (n - k + 1)
    tail = (on + below) ** (n - k + 1) - below_power
    total = fmpz_poly(comb(n, k - 1) * tail)
    on_power = 1
    for a in range(k - 2, -1, -1):
        on_power *= on
        tail = (on + below) * tail - comb(n - a - 1, k - a - 1) * on_power * below_power
        total = total * above + comb(n, a) * tail
    return total


def _by_dice_below(above: fmpz_poly, on: int, below: int, n: int, k: int) -> fmpz_poly:
    """The same sum counted by b, the dice below t (b <= n - k): for each b, the n - b others
    are on or above t, all but those with k or more above t:
    Σ_b C(n, b) below^b [(above + on)^(n-b) - Σ_{a >= k} C(n-b, a) above^a on^(n-b-a)]."""
    dropped = n - k
    at_least = above + on
    # (above + on)^k · Σ_b C(n, b) below^b (above + on)^(dropped - b), by Horner.
    first = fmpz_poly(comb(n, 0))
    for b in range(1, dropped + 1):
        first = first * at_least + comb(n, b) * below**b
    first *= at_least**k
    # above^k · Σ_j above^j · Σ_{b <= dropped - j} C(n, b) below^b C(n-b, k+j) on^(dropped-b-j).
    second = fmpz_poly(0)
    for j in range(dropped, -1, -1):
        scalar = sum(
            comb(n, b) * below**b * comb(n - b, k + j) * on ** (dropped - b - j)
            for b in range(dropped - j + 1)
        )
        second = second * above + scalar
    return first - second * above**k


def keep_ends(
    weights: dict[int, int], n: int, highest: int, lowest: int, keep: bool
) -> dict[int, int]:
    """Integer weights, by value, of the sum of what d20's joined selectors `hA` and `lB`
    keep (`keep`, as `kh1kl1`) or leave (as `ph1pl1`) of n dice. Each selector picks from
    its own sort, ties to the earlier die, so among dice of one value both pick the earliest:
    of c dice on a value, the selectors pick the most either picks alone (2d6kh1kl1 on two
    4s keeps one 4).

    Face by face from the highest, for each count j of dice already placed, c dice show the
    face in C(n - j, c) ways and take the places j .. j + c - 1 from the highest; hA picks
    those of them before place A, lB those from place n - B on."""
    values = sorted((v for v, w in weights.items() if w), reverse=True)
    low = values[-1]

    def kept(j: int, c: int) -> int:
        by_highest = max(0, min(j + c, highest) - j)
        by_lowest = max(0, j + c - max(j, n - lowest))
        picked = max(by_highest, by_lowest)
        return picked if keep else c - picked

    # By count of dice placed: x^(the kept dice's sum, each less `low`), and how many kept.
    placed: dict[int, dict[int, fmpz_poly]] = {0: {0: fmpz_poly([1])}}
    for value in values:
        weight, step = weights[value], value - low
        after: dict[int, dict[int, fmpz_poly]] = {}
        for j, by_kept in placed.items():
            ways = 1  # C(n - j, c) · weight^c
            for c in range(n - j + 1):
                if c:
                    ways = ways * weight * (n - j - c + 1) // c
                more = kept(j, c)
                for count, poly in by_kept.items():
                    term = poly * ways
                    if step * more:
                        term = term.left_shift(step * more)
                    slot = after.setdefault(j + c, {})
                    slot[count + more] = slot[count + more] + term if count + more in slot else term
        placed = after
    result: dict[int, int] = {}
    for count, poly in placed[n].items():
        for i, coefficient in enumerate(poly.coeffs()):
            if coefficient:
                value = count * low + i
                result[value] = result.get(value, 0) + int(coefficient)
    return result
