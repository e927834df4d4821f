%% leaf/2 runs two million times from loop/2, once BEAM's JIT has compiled
%% the module (when main/0 first calls into it).
-module(busy).
-export([main/0, leaf/2]).
leaf(X, Y) -> (X * 31 + Y) rem 1000003.
loop(0, Acc) -> Acc;
loop(N, Acc) -> loop(N - 1, leaf(Acc, N)).
main() ->
    io:format("sum ~p~n", [loop(2000000, 1)]),
    halt().
